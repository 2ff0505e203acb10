export { contractProblems, PAGES, recordingHandler, schemaValidator, type RecordedResponse } from '../../src/testing/contract.js';
