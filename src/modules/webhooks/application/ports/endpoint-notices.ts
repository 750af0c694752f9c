import type { EndpointView } from '../webhook.views.js';

/** Tells the workspace's sockets an endpoint was disabled (the api layer builds the wire body). */
export abstract class EndpointDisabledNotice {
  abstract publish(endpoint: EndpointView): Promise<void>;
}
