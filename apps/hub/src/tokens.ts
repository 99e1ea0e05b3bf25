/** DI token of the validated HubConfig. */
export const HUB_CONFIG = Symbol('HUB_CONFIG');
/** DI token of the read-model TypeORM DataSource. */
export const READ_MODELS = Symbol('READ_MODELS');
/** DI token of the clock (a function returning now); tests may pass their own. */
export const CLOCK = Symbol('CLOCK');

/** Returns the current instant. */
export type Clock = () => Date;
