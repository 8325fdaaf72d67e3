export { type DeliverOptions, deliver, makePayload } from './delivery';
export { listen } from './listen';
export { memorySource } from './memory-source';
export {
  ALLOWED_ORIGIN,
  describeRouteConformance,
  ROUTE_SECRET,
  type RouteAdapterOptions,
  type RouteConformanceTarget,
  type StartedRoutes,
} from './route-conformance';
export { describeGenerationStoreConformance, type GenerationStoreTarget, makeRecord } from './store-conformance';
export {
  describeWebhookConformance,
  LIMIT,
  NEW_SECRET,
  OLD_SECRET,
  type StartedAdapter,
  type WebhookAdapterOptions,
  type WebhookConformanceTarget,
} from './webhook-conformance';
