/** What other parts of the service may use from self-hosted routing: its module (it installs itself at the image seam). */
export { SelfHostedRoutingModule } from './selfhosted-routing.module.js';
