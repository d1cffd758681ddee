// test/rest/webhooks.test.ts again, with gateway and service joined by real gRPC over
// loopback (a split deployment) instead of the in-process channel of npm start.
process.env['SWITCHYARD_TEST_CHANNEL'] = 'grpc';
await import('../rest/webhooks.test.js');
