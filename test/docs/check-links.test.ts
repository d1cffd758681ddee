import test from 'ava';
import { join } from 'node:path';
import { ROOT } from '../support/cli.js';
import { documentationPages } from '../../scripts/check-links.js';
import { checkLinks } from '../../scripts/links/check.js';
import { anchorsOf, headingText, linksOf, Slugger } from '../../scripts/links/markdown.js';

const FIXTURES = join(ROOT, 'test/docs/fixtures/links');

test('the fixture page: exactly its broken links are reported, each with its line', (t) => {
  const broken = checkLinks(ROOT, [join(FIXTURES, 'index.md')]);
  t.deepEqual(
    broken.map(({ line, target }) => `${line} ${target}`),
    ['12 missing.md', '12 other.md#nowhere', '13 pictures/none.png', '15 gone.html', '17 missing-reference.md', '35 #usage-2'],
  );
  t.regex(broken.find((link) => link.target === 'other.md#nowhere')!.reason, /#nowhere.*other\.md/);
});

test('links inside fenced blocks, inline code and comments are not links', (t) => {
  const targets = linksOf('`[a](x.md)` ``[b `c`](y.md)``\n\n```\n[d](z.md)\n```\n<!-- [e](w.md) -->\n[f](v.md)').map((link) => link.target);
  t.deepEqual(targets, ['v.md']);
});

test('an unmatched backtick does not hide the links of the next paragraph', (t) => {
  t.deepEqual(
    linksOf('a lone ` here\n\n[next](n.md) and ` again').map((link) => link.target),
    ['n.md'],
  );
});

test('heading anchors are named as GitHub names them', (t) => {
  const slugger = new Slugger();
  t.is(slugger.slug(headingText("What's new in v0.3.0?")), 'whats-new-in-v030');
  t.is(slugger.slug(headingText('`CDN_URL` and [links](x.md)')), 'cdn_url-and-links');
  t.is(slugger.slug(headingText('**Bold** _emphasis_ snake_case')), 'bold-emphasis-snake_case');
  t.is(slugger.slug('FAQ'), 'faq');
  t.is(slugger.slug('FAQ'), 'faq-1');
  t.is(slugger.slug('FAQ 1'), 'faq-1-1', 'a heading whose own slug was taken by a repeat');
  t.deepEqual([...anchorsOf('# A\n\nB\n===\n\n```\n# C\n```\n<a id="d"></a>')], ['a', 'b', 'd']);
});

test("the pages checked are the README, docs/, the bench's, the packages' and test/README.md", (t) => {
  const pages = documentationPages(ROOT).map((file) => file.slice(ROOT.length));
  t.true(pages.includes('README.md'));
  t.true(pages.includes('bench/README.md'));
  t.true(pages.includes('bench/hand-written-parts.md'));
  t.true(pages.includes('test/README.md'));
  t.true(pages.some((page) => page.startsWith('docs/')));
  t.deepEqual(
    pages.filter((page) => page.startsWith('test/')),
    ['test/README.md'],
    'fixtures are not pages',
  );
});
