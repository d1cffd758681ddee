import test from 'ava';
import { attachmentNamed } from './content-disposition.js';

test('an ASCII name is both the fallback and the encoded value', (t) => {
  t.is(attachmentNamed('report 2024.pdf'), `attachment; filename="report 2024.pdf"; filename*=UTF-8''report%202024.pdf`);
});

test('a non-ASCII name is percent-encoded UTF-8, with an ASCII stand-in', (t) => {
  t.is(
    attachmentNamed('Grüße – 📷.png'),
    `attachment; filename="Gru_e _ _.png"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%E2%80%93%20%F0%9F%93%B7.png`,
  );
  t.is(decodeURIComponent(attachmentNamed('日本語.txt').split("UTF-8''")[1]!), '日本語.txt');
});

test('quotes, backslashes, separators and percent signs cannot break out of either parameter', (t) => {
  const header = attachmentNamed(`a"; filename*=UTF-8''evil.html; x="\\%41(1)*'.txt`);
  t.is(
    header,
    `attachment; filename="a_; filename*=UTF-8''evil.html; x=___41(1)*'.txt"; filename*=UTF-8''a%22%3B%20filename%2A%3DUTF-8%27%27evil.html%3B%20x%3D%22%5C%2541%281%29%2A%27.txt`,
  );
  const encoded = header.split("filename*=UTF-8''")[2]!;
  t.regex(encoded, /^[A-Za-z0-9!#$&+\-.^_`|~%]+$/, 'only attr-char and percent escapes');
});

test('whatever the name, the value is printable ASCII: no header can be ended or added', (t) => {
  for (const name of ['x\r\nSet-Cookie: a=b', '\u0000\u007f\u0085', '\u2028\u2029', 'lone \ud800', '🏳️‍🌈'.repeat(40)]) {
    const header = attachmentNamed(name);
    t.regex(header, /^[\x20-\x7e]+$/, JSON.stringify(name));
    t.false(/[\r\n]/.test(header));
  }
});
