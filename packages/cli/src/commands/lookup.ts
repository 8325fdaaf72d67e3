import type { MediaGenClient, Model } from '@mediagen/core';
import { UnknownModelError, UsageError } from '../errors';

/** The model's entry from the account's own list: its schema types and checks the params. */
export async function findModel(client: MediaGenClient, slug: string | undefined): Promise<Model> {
  if (!slug) throw new UsageError('--model is required.', 'List the models this account can use with: mediagen models');
  const list = await client.models.cachedList();
  const models = Array.isArray(list.models) ? list.models.filter((m) => typeof m?.slug === 'string') : [];
  const model = models.find((m) => m.slug === slug);
  if (!model)
    throw new UnknownModelError(
      slug,
      models.map((m) => m.slug),
    );
  return model;
}
