// One JSON token after optional whitespace: punctuation, a string (an unrolled loop, so long strings
// cost no backtracking), or a bare word (number or literal, checked whole afterwards).
const TOKEN = /\s*(?:([{}[\],:])|("[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*")|([\w.+-]+))/y;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
// What the head may end in when it was cut inside a token.
const PARTIAL_STRING = /^"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*(?:\\(?:u[0-9a-fA-F]{0,3})?)?$/;
const PARTIAL_NUMBER = /^-?\d*(?:\.\d*)?(?:[eE][+-]?\d*)?$/;
const LITERALS = ['true', 'false', 'null'];

type Expect = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'after' | 'end';

/**
 * Whether the text is a JSON object or array. A complete file must parse; the
 * head of a longer file must be a grammatical beginning of one (checked token
 * by token, so a cut anywhere, even inside a string, still counts).
 */
export function isJson(text: string, complete: boolean): boolean {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  if (!complete) return isJsonPrefix(text);
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isJsonPrefix(text: string): boolean {
  const stack: string[] = [];
  let expect: Expect = 'value';
  let position = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match; match = TOKEN.exec(text)) {
    position = TOKEN.lastIndex;
    const [, punctuation, string, word] = match;
    // A word at the very end may be cut short; it is judged with the partial tokens below.
    if (word !== undefined && position === text.length) return isPartialToken(word, expect);
    if (word !== undefined && !NUMBER.test(word) && !LITERALS.includes(word)) return false;
    const next: Expect | undefined =
      punctuation !== undefined ? afterPunctuation(punctuation, expect, stack) : afterScalar(string !== undefined, expect, stack);
    if (next === undefined) return false;
    expect = next;
  }
  return isPartialToken(text.slice(position).trimStart(), expect);
}

function afterScalar(isString: boolean, expect: Expect, stack: string[]): Expect | undefined {
  if (expect === 'key' || expect === 'keyOrClose') return isString ? 'colon' : undefined;
  if (expect === 'value' || expect === 'valueOrClose') return stack.length === 0 ? 'end' : 'after';
  return undefined;
}

function afterPunctuation(token: string, expect: Expect, stack: string[]): Expect | undefined {
  const top = stack[stack.length - 1];
  switch (token) {
    case '{':
    case '[':
      if (expect !== 'value' && expect !== 'valueOrClose') return undefined;
      stack.push(token);
      return token === '{' ? 'keyOrClose' : 'valueOrClose';
    case '}':
    case ']': {
      const opener = token === '}' ? '{' : '[';
      const closes = top === opener && (expect === 'after' || expect === (opener === '{' ? 'keyOrClose' : 'valueOrClose'));
      if (!closes) return undefined;
      stack.pop();
      return stack.length === 0 ? 'end' : 'after';
    }
    case ',':
      if (expect !== 'after') return undefined;
      return top === '{' ? 'key' : 'value';
    case ':':
      return expect === 'colon' ? 'value' : undefined;
    default:
      return undefined;
  }
}

function isPartialToken(rest: string, expect: Expect): boolean {
  if (rest === '') return true;
  const wantsValue = expect === 'value' || expect === 'valueOrClose';
  if (rest.startsWith('"')) return (wantsValue || expect === 'key' || expect === 'keyOrClose') && PARTIAL_STRING.test(rest);
  if (!wantsValue) return false;
  return PARTIAL_NUMBER.test(rest) || LITERALS.some((literal) => literal.startsWith(rest));
}
