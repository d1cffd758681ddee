// One implementation, in the core's testing subpath, so that unit tests beside the sources use it too.
export { eventually, quietPeriod, type EventuallyOptions } from '@switchyard/core/testing';
