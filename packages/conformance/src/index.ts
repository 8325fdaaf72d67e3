export { type BudgetInstancesTarget, describeBudgetAcrossInstances } from './budget-instances.js';
export { type BudgetStoreTarget, describeBudgetStoreConformance } from './budget-store-conformance.js';
export { type CancelRaceInstancesTarget, describeCancelRaceAcrossInstances } from './cancel-race-instances.js';
export { type DeliverOptions, deliver, makePayload } from './delivery.js';
export { describeLedgerRouteConformance, type LedgerStoreFactory } from './ledger-routes.js';
export { listen } from './listen.js';
export { describeMediaStoreConformance, digest, type MediaStoreTarget, randomBytes, streamOf } from './media-store-conformance.js';
export { memorySource } from './memory-source.js';
export {
  ALLOWED_ORIGIN,
  describeRouteConformance,
  ROUTE_SECRET,
  type RouteAdapterOptions,
  type RouteConformanceTarget,
  type StartedRoutes,
} from './route-conformance.js';
export { describeGenerationStoreConformance, type GenerationStoreTarget, makeRecord } from './store-conformance.js';
export {
  describeWebhookConformance,
  LIMIT,
  NEW_SECRET,
  OLD_SECRET,
  type StartedAdapter,
  type WebhookAdapterOptions,
  type WebhookConformanceTarget,
} from './webhook-conformance.js';
