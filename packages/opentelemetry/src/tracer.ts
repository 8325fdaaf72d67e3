import { type Tracer, trace } from '@opentelemetry/api';

/** The tracer the caller gave, else the global provider's, named after this package. */
export const tracerOf = (tracer?: Tracer): Tracer => tracer ?? trace.getTracer('@mediagen/opentelemetry');
