import { afterAll } from '@jest/globals';
import { killRunningServers } from './helpers/server.js';

// A test that failed or timed out may have left a server running: it goes with its file, workers and all.
afterAll(() => killRunningServers());
