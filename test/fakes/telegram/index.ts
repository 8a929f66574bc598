/** The fake Telegram Bot API and update builders for tests and benchmarks. */
export * from './limits.js';
export * from './markup.js';
export * from './server.js';
export * from './state.js';
export * from './updates.js';
export { type FakeUploadLimits, TELEGRAM_UPLOAD_LIMITS } from './uploads.js';
