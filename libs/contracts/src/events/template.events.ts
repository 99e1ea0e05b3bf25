import { z } from 'zod';
import { defineEvent } from '../registry';
import { namespaceSchema } from './resources.schemas';

/** One parameter of a job template, referenced as `${name}` in its spec's strings. */
export const templateParameterSchema = z
  .object({
    name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/, 'parameter names: letters, digits, _'),
    description: z.string().max(500).default(''),
    default: z.string().max(4096).optional(),
  })
  .strict();

/** A job template: a workload spec with `${param}` placeholders, checked when instantiated. */
export const templateDefinitionSchema = z
  .object({
    templateId: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'template ids: a-z, 0-9, dashes'),
    namespace: namespaceSchema.default('default'),
    description: z.string().max(2000).default(''),
    parameters: z.array(templateParameterSchema).max(64).default([]),
    spec: z.record(z.string(), z.unknown()),
  })
  .strict();

/** A job template definition. */
export type TemplateDefinition = z.output<typeof templateDefinitionSchema>;

/** A job template was defined. */
export const TemplateDefined = defineEvent('TemplateDefined', 1, templateDefinitionSchema);
/** A job template was replaced. */
export const TemplateUpdated = defineEvent('TemplateUpdated', 1, templateDefinitionSchema);
/** A job template was deleted. */
export const TemplateDeleted = defineEvent(
  'TemplateDeleted',
  1,
  z.object({ templateId: z.string().max(63) }),
);

/** Every template event definition. */
export const TEMPLATE_EVENTS = [TemplateDefined, TemplateUpdated, TemplateDeleted] as const;

/** Stream of a job template. */
export const templateStream = (templateId: string): string => `template-${templateId}`;
