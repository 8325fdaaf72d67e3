/**
 * `@mediagen/core/standard-schema`: each model's params rules as a Standard Schema, for form and
 * server-action libraries. A separate entry, so apps that do not use it never bundle it.
 */
export { type FormParams, paramsSchema } from './params/params-schema';
export type { StandardSchemaV1 } from './params/standard-schema-spec';
