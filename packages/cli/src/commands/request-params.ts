import type { Model } from '@mediagen/core';
import { UsageError } from '../errors';
import { checkParams } from '../params/check';
import { parseParamArgs } from '../params/parse-params';

export interface ParamFlags {
  prompt?: string;
  param?: string[];
}

/** `--prompt` and every `--param`, parsed by the model's schema and checked: all issues at once. */
export function requestParams(model: Model, flags: ParamFlags): Record<string, unknown> & { model: string } {
  const { params, issues } = parseParamArgs(model, flags.param ?? []);
  if (flags.prompt !== undefined) {
    if (Object.hasOwn(params, 'prompt')) throw new UsageError('Give the prompt once: --prompt or --param prompt=…, not both.');
    params.prompt = flags.prompt;
  }
  const request = { model: model.slug, ...params };
  checkParams(model, request, issues);
  return request;
}
