// How many shards one verification may be split into, on its own so that `merge` (which loads nothing but
// zod to read shard outputs) and `verify --shard` share it without `merge` loading the task selection.

/**
 * Most shards one verification is split into: more CI jobs than any CI runs in one matrix (GitHub's limit
 * is 256). `merge` holds each shard's metadata to it too, before it counts anything.
 */
export const MAX_SHARDS = 1000;
