// The Porter stem of a lowercased word, remembered: recall's phrase matching stems the words of hundreds of candidate
// texts per query and consolidation every fact's content words, and a vocabulary repeats far more than it grows.
import { stemmer } from 'stemmer';
import { remembered } from '../core/index.ts';

export const stem = remembered(stemmer, 100_000);
