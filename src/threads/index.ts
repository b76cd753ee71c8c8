// The face of src/threads: thread memory, its types, settings and store port. Other folders import threads through
// this file only (src/layout.test.ts checks it).
export { MAX_MESSAGES_PER_APPEND, type ThreadMemory } from './memory.ts';
export {
  type ItemFilter,
  type MemoryChange,
  seqsFree,
  type StoredItem,
  type StoredMessage,
  type ThreadStore,
  type Watermarks,
} from './ports.ts';
export { parseThreadSettings } from './settings.ts';
export {
  type MemoryEvent,
  type MemoryItem,
  type MemoryKind,
  type MemoryStatus,
  MESSAGE_ROLES,
  type MessageInput,
  type MessageRole,
  type NewMessage,
  type Thread,
  type ThreadMessage,
  type ToolCall,
  type WorkingMemory,
} from './types.ts';
