// The face of src/reflect: the reflect use case (engine.reflect). Other folders import reflect through this file
// only (src/layout.test.ts checks it).
export { type AnswererFor, Reflection } from './reflection.ts';
