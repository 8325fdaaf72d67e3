import type { GenerateParams, Model } from '../types';
import type { StandardSchemaV1 } from './standard-schema-spec';
import { validateParams } from './validate';

/** A form's values: generate params without `model` (the schema is that model's). */
export type FormParams = Omit<GenerateParams, 'model'>;

/**
 * A model's params rules as a Standard Schema: the same `validateParams` checks (the account's
 * live per-model schema, from `client.models.list()`), in the shape form and server-action
 * libraries accept. Each issue's `path` is its field, so a form shows it next to the input.
 */
export function paramsSchema(model: Model): StandardSchemaV1<FormParams> {
  return {
    '~standard': {
      version: 1,
      vendor: 'mediagen',
      validate(value) {
        const issues = validateParams(model, typeof value === 'object' && value !== null ? value : {});
        if (issues.length === 0) return { value: value as FormParams };
        return { issues: issues.map((issue) => ({ message: issue.message, path: issue.field ? [issue.field] : undefined })) };
      },
    },
  };
}
