import { templateDefinitionSchema } from '@hcn/contracts';
import { specFor } from '../testing';
import { instantiateTemplate, templateDecider } from './template.decider';

const template = templateDefinitionSchema.parse({
  templateId: 'train',
  parameters: [{ name: 'epochs', default: '3' }, { name: 'dataset' }],
  spec: {
    name: 'train-${dataset}',
    command: 'python',
    args: ['train.py', '--epochs=${epochs}'],
    resources: { cpuMillis: 1000, memoryBytes: 1 },
  },
});
const given = specFor(templateDecider);

describe('template decider', () => {
  it('fills placeholders from parameters and defaults', () => {
    expect(instantiateTemplate(template, { dataset: 'mnist' })).toEqual({
      name: 'train-mnist',
      command: 'python',
      args: ['train.py', '--epochs=3'],
      resources: { cpuMillis: 1000, memoryBytes: 1 },
    });
  });

  it.each([
    [{ dataset: 'x', lr: '0.1' }, 'TEMPLATE.UNKNOWN_PARAMETER'],
    [{}, 'TEMPLATE.MISSING_PARAMETER'],
  ])('refuses %j with %s', (params, code) => {
    expect(() => instantiateTemplate(template, params)).toThrow(expect.objectContaining({ code }));
  });

  it('refuses a template whose spec uses an undeclared placeholder', () => {
    const bad = { ...template, spec: { ...template.spec, command: '${binary}' } };
    expect(given([]).when({ type: 'DefineTemplate', definition: bad })).toMatchObject({
      error: { code: 'TEMPLATE.UNDECLARED_PARAMETER' },
    });
  });

  it('defines, updates and deletes; a deleted template is gone', () => {
    const defined = { type: 'TemplateDefined' as const, data: template };
    expect(given([]).when({ type: 'DefineTemplate', definition: template })).toEqual({ events: [defined] });
    expect(
      given([defined]).when({ type: 'UpdateTemplate', definition: { ...template, namespace: 'b' } }),
    ).toMatchObject({ error: { code: 'TEMPLATE.NAMESPACE_IMMUTABLE' } });
    const deleted = { type: 'TemplateDeleted' as const, data: { templateId: 'train' } };
    expect(given([defined]).when({ type: 'DeleteTemplate', templateId: 'train' })).toEqual({
      events: [deleted],
    });
    expect(given([defined, deleted]).when({ type: 'DeleteTemplate', templateId: 'train' })).toMatchObject({
      error: { code: 'TEMPLATE.NOT_FOUND' },
    });
  });
});
