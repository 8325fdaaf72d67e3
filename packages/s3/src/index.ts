export { S3StoreError } from './errors';
export { S3_ENV_SETTINGS, s3StoreFromEnv } from './from-env';
export { S3MediaStore, type S3MediaStoreOptions } from './store';
