/**
 * A form field given up front, or as a function asked once the body has been
 * read (its part came after the file). One given up front is validated at
 * once, before any byte is read; a late one when asked.
 */
export function lateField<T>(given: T | (() => T | undefined) | undefined, validate: (value: unknown) => T): () => T {
  if (typeof given !== 'function') {
    const value = validate(given);
    return () => value;
  }
  return () => validate((given as () => T | undefined)());
}
