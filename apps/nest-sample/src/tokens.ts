/** The app's settings, read once from `ConfigService`. */
export const SAMPLE_CONFIG = Symbol('SAMPLE_CONFIG');
