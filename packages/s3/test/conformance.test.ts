import { describeMediaStoreConformance } from '@mediagen/conformance';
import { inject } from 'vitest';
import { S3MediaStore } from '../src';

const s3 = inject('s3');
let run = 0;
const namespace = `conformance-${Date.now().toString(36)}`;

describeMediaStoreConformance({
  name: 'S3MediaStore (s3rver behind a strict SigV4 front, or S3_URL)',
  nosniff: false,
  create: ({ now } = {}) => new S3MediaStore({ ...s3, forcePathStyle: true, prefix: `${namespace}/${++run}/`, now }),
});
