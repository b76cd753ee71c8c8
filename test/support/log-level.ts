// Loaded before each test file (scripts/test.mjs: --import): the test process logs from the level CAIRN_LOG_LEVEL
// names (scripts/test.mjs sets warn unless told otherwise), as `cairn` does once it has read its configuration.
import { loadConfig } from '../../src/config/index.ts';
import { configureLog } from '../../src/log.ts';

configureLog(loadConfig({ CAIRN_LOG_LEVEL: process.env.CAIRN_LOG_LEVEL }).log);
