// A worker thread of the pooled offline extractor: one OfflineExtractor per thread, one extract() per task.
import type { ExtractInput, ExtractedFact } from './extractor.ts';
import { OfflineExtractor } from './offline-extractor.ts';

const extractor = new OfflineExtractor();

export default function extract(input: ExtractInput): Promise<ExtractedFact[]> {
  return extractor.extract(input);
}
