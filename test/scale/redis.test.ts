// The documented scale-out deployment with Redis carrying route changes and rate limits.
import { scaleScenarios } from './support/scenarios.js';

await scaleScenarios('redis');
