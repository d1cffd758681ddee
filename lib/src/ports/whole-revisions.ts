/**
 * Cuts a page of the route change log back to whole revisions, for route
 * stores answering `changesSince`: a reader that resumes after the last
 * revision it saw must never have seen only part of it.
 *
 * `changes` are the log's next changes in order, read as `limit + 1` (one
 * more than asked, to see whether the cut falls inside a revision). Answers
 * at most `limit` of them, ending at a revision's end, or `undefined` when the
 * first revision alone holds more than `limit`: the caller then reads that
 * revision whole.
 */
export function wholeRevisions<T extends { readonly revision: number }>(changes: readonly T[], limit: number): T[] | undefined {
  if (changes.length <= limit) return [...changes];
  const cutRevision = changes[limit]!.revision;
  const end = changes.findIndex((change) => change.revision === cutRevision);
  return end === 0 ? undefined : changes.slice(0, end);
}
