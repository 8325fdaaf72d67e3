import type { TypedGenerateParams } from '@mediagen/core';
import { ENHANCE_CREDITS } from '@mediagen/core/wire';
import { clientFrom, type GlobalOptions } from '../context';
import type { Io } from '../io';
import { findModel } from './lookup';
import { type ParamFlags, requestParams } from './request-params';

export interface EstimateOptions extends GlobalOptions, ParamFlags {
  model?: string;
}

export async function estimateCommand(options: EstimateOptions, io: Io): Promise<void> {
  const client = clientFrom(options, io);
  const model = await findModel(client, options.model);
  const params = requestParams(model, options);
  // Checked against the live schema above; the registry types are for code written by hand.
  const quote = await client.generations.estimate(params as TypedGenerateParams);
  if (options.json) return io.json(quote);
  const enhance = params.enhance === true ? ` + ${ENHANCE_CREDITS} for enhance` : '';
  io.out(`${model.slug}: ${quote.credits_estimate ?? '?'} credits${enhance} (estimate: nothing charged)`);
  io.err(io.color.dim(`pricing ${quote.pricing_source ?? 'not given'} · request ${quote.request_id ?? '-'}`));
}
