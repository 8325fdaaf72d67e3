import { type Model, type ParamSpec, type ParamsIssue, ParamsValidationError, validateParams } from '@mediagen/core';
import { describeSpec, paramKeysOf } from './describe';

/**
 * Every issue at once: what `--param` parsing found plus what core's `validateParams` finds,
 * each with what the model accepts instead. Throws `ParamsValidationError` when there is any.
 */
export function checkParams(model: Model, params: Record<string, unknown>, parseIssues: readonly ParamsIssue[]): void {
  const parsed = new Set(parseIssues.map((i) => i.field));
  const found = validateParams(model, params)
    .filter((i) => !parsed.has(i.field))
    .map((issue) => withGiven(withAllowed(model, issue), params));
  const issues = [...parseIssues, ...found];
  if (issues.length > 0) throw new ParamsValidationError(model.slug, issues);
}

function withAllowed(model: Model, issue: ParamsIssue): ParamsIssue {
  const specs = (model.params ?? {}) as Record<string, ParamSpec | undefined>;
  const spec = Object.hasOwn(specs, issue.field) ? specs[issue.field] : undefined;
  if (issue.code === 'NOT_SUPPORTED') {
    return { ...issue, message: `${issue.message} on ${model.slug} (it takes: ${paramKeysOf(model).join(', ') || 'no params'})` };
  }
  // INVALID_VALUE messages already list the values.
  if (!spec || issue.code === 'INVALID_VALUE') return issue;
  const allowed = describeSpec(issue.field, spec, model);
  return allowed === 'text' ? issue : { ...issue, message: `${issue.message} (allowed: ${allowed})` };
}

/** Free text stays out of messages: a prompt can be long, and it is the user's own anyway. */
const TEXT_FIELDS = new Set(['prompt', 'negative_prompt']);

/** What was sent, so the line reads "size must be one of: … (got "1234x777")". */
function withGiven(issue: ParamsIssue, params: Record<string, unknown>): ParamsIssue {
  if (TEXT_FIELDS.has(issue.field) || !Object.hasOwn(params, issue.field)) return issue;
  const given = JSON.stringify(params[issue.field]);
  if (given === undefined || issue.message.includes(given)) return issue;
  return { ...issue, message: `${issue.message} (got ${given.length > 80 ? `${given.slice(0, 77)}...` : given})` };
}
