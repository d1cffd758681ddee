// The documented scale-out deployment with NATS carrying route changes (rate limits stay on Redis).
import { scaleScenarios } from './support/scenarios.js';

await scaleScenarios('nats');
