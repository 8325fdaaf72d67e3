import { Inject } from '@nestjs/common';
import { MEDIAGEN_CLIENT } from './tokens';

/** Injects the module's `MediaGenClient` by token: `constructor(@InjectMediaGen() client: MediaGenClient)`. */
export const InjectMediaGen = (): PropertyDecorator & ParameterDecorator => Inject(MEDIAGEN_CLIENT);
