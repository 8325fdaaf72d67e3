export {
  describeWebhookConformance,
  OLD_SECRET,
  NEW_SECRET,
  LIMIT,
  type WebhookAdapterOptions,
  type StartedAdapter,
  type WebhookConformanceTarget,
} from './webhook-conformance';
export { deliver, makePayload, type DeliverOptions } from './delivery';
export { listen } from './listen';
