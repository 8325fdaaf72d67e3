export { S3StoreError } from './errors';
export { S3MediaStore, type S3MediaStoreOptions } from './store';
