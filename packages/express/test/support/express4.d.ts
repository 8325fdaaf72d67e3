// The `express4` dev alias (npm:express@^4) has the same API surface the tests use.
declare module 'express4' {
  import express from 'express';
  export default express;
}
