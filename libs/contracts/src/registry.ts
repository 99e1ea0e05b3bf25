import { z } from 'zod';
import { HcnError } from './errors';
import { parseOrThrow } from './validation';
import { withoutDefaults } from './util/without-defaults';

/** The definition of one event type at one schema version. */
export interface EventDefinition<Type extends string = string, S extends z.ZodTypeAny = z.ZodTypeAny> {
  readonly type: Type;
  readonly version: number;
  readonly schema: S;
}

/** Declares an event type with its data schema. */
export function defineEvent<Type extends string, S extends z.ZodTypeAny>(
  type: Type,
  version: number,
  schema: S,
): EventDefinition<Type, S> {
  return { type, version, schema };
}

/** The data type of a defined event. */
export type EventData<D extends EventDefinition> = z.output<D['schema']>;

/** Looks up event schemas by type and version and validates event data against them. */
export class EventRegistry {
  private readonly byKey = new Map<string, EventDefinition>();
  private readonly latest = new Map<string, number>();

  constructor(definitions: readonly EventDefinition[]) {
    for (const def of definitions) this.add(def);
  }

  /** A registry holding this one's definitions and `more`. */
  extend(more: readonly EventDefinition[]): EventRegistry {
    return new EventRegistry([...this.byKey.values(), ...more]);
  }

  /** Newest schema version of `type`; throws EVENT.UNKNOWN_TYPE when not defined. */
  latestVersion(type: string): number {
    const version = this.latest.get(type);
    if (version === undefined)
      throw new HcnError('EVENT.UNKNOWN_TYPE', `Unknown event type ${type}`, { type });
    return version;
  }

  /** Validates `data` against the schema of `type` at `version`; returns the parsed data. */
  validate(type: string, version: number, data: unknown): unknown {
    const def = this.byKey.get(`${type}@${version}`);
    if (!def) {
      throw new HcnError('EVENT.UNKNOWN_TYPE', `Unknown event type ${type} version ${version}`, {
        type,
        version,
      });
    }
    return parseOrThrow(def.schema, data, 'EVENT.SCHEMA_INVALID', `Event ${type}@${version}`);
  }

  /**
   * Data that `validate` returned, as stored: without the values its schema fills back on parse (members equal to
   * their default, what a `withStoredForm` leaves out), so every reader still sees the full data. Unknown types are
   * returned as given.
   */
  storedForm(type: string, version: number, data: unknown): unknown {
    const def = this.byKey.get(`${type}@${version}`);
    return def ? withoutDefaults(def.schema, data) : data;
  }

  private add(def: EventDefinition): void {
    this.byKey.set(`${def.type}@${def.version}`, def);
    this.latest.set(def.type, Math.max(def.version, this.latest.get(def.type) ?? 0));
  }
}
