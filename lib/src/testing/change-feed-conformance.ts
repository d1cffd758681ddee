import { MAX_FEED_IDS, type ChangeFeed } from '../ports/change-feed.js';
import { eventually } from './eventually.js';
import { defineCase, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';

/**
 * Two ends of one feed, as two instances of a deployment hold them: what one
 * publishes, both hear. An in-process feed may give the same object twice.
 * `create` resolves once both are up.
 */
export interface ChangeFeedPair {
  readonly a: ChangeFeed;
  readonly b: ChangeFeed;
}

/** What a listener heard, and a way to wait for a message. */
function recorder(feed: ChangeFeed) {
  const heard: string[] = [];
  const unsubscribe = feed.subscribe({
    revision: (workspace, revision, log, changed) =>
      void heard.push(`${log === 'routes' ? '' : `${log}:`}${workspace}@${revision}${changed ? `[${changed.join(',')}]` : ''}`),
    state: () => undefined,
  });
  /** Resolves once `count` messages were heard, fails after 5 s saying what was. */
  const until = async (count: number): Promise<void> => {
    await eventually(
      () => {
        if (heard.length < count) throw new Error(`heard ${heard.length}: ${heard.join(' ')}`);
        return true;
      },
      { timeout: 5_000, interval: 5, message: `${count} messages` },
    );
  };
  return { heard, until, unsubscribe };
}

/** Registers the ChangeFeed contract tests (see `ports/change-feed.ts`). */
export function changeFeedConformance(test: RegisterTest, options: ConformanceOptions<ChangeFeedPair>): void {
  const name = 'ChangeFeed';

  defineCase(test, options, `${name}: a published revision reaches the publisher's listeners and the other end's`, async (t, { a, b }) => {
    t.true(a.up && b.up, 'both ends are up once created');
    const onA = recorder(a);
    const onB = recorder(b);
    const workspace = uniqueName();
    await a.publish(workspace, 7);
    await Promise.all([onA.until(1), onB.until(1)]);
    t.deepEqual(onA.heard, [`${workspace}@7`]);
    t.deepEqual(onB.heard, [`${workspace}@7`]);
    onA.unsubscribe();
    onB.unsubscribe();
  });

  defineCase(test, options, `${name}: every message of a burst arrives once, each with its own workspace`, async (t, { a, b }) => {
    const onB = recorder(b);
    const workspaces = Array.from({ length: 20 }, () => uniqueName());
    const sent: string[] = [];
    for (let revision = 1; revision <= 5; revision++) {
      for (const workspace of workspaces) sent.push(`${workspace}@${revision}`);
    }
    await Promise.all(workspaces.flatMap((workspace) => [1, 2, 3, 4, 5].map((revision) => a.publish(workspace, revision))));
    await onB.until(sent.length);
    t.deepEqual([...onB.heard].sort(), [...sent].sort());
    onB.unsubscribe();
  });

  defineCase(test, options, `${name}: each message arrives with its log; routes when the publisher named none`, async (t, { a, b }) => {
    const onB = recorder(b);
    const workspace = uniqueName();
    await a.publish(workspace, 3, 'assets');
    await a.publish(workspace, 4, 'routes');
    await a.publish(workspace, 5);
    await onB.until(3);
    t.deepEqual([...onB.heard].sort(), [`${workspace}@4`, `${workspace}@5`, `assets:${workspace}@3`].sort());
    onB.unsubscribe();
  });

  defineCase(
    test,
    options,
    `${name}: the ids a revision changed arrive with it, up to MAX_FEED_IDS; more are not named`,
    async (t, { a, b }) => {
      const onB = recorder(b);
      const workspace = uniqueName();
      const many = Array.from({ length: MAX_FEED_IDS + 1 }, (_, i) => `as_${i}`);
      await a.publish(workspace, 1, 'assets', ['as_a', 'as_b']);
      await a.publish(workspace, 2, 'assets', many);
      await a.publish(workspace, 3, 'routes', ['rt_a']);
      await onB.until(3);
      t.deepEqual([...onB.heard].sort(), [`assets:${workspace}@1[as_a,as_b]`, `assets:${workspace}@2`, `${workspace}@3[rt_a]`].sort());
      onB.unsubscribe();
    },
  );

  defineCase(test, options, `${name}: a removed listener hears nothing more; the others still do`, async (t, { a, b }) => {
    const removed = recorder(b);
    const kept = recorder(b);
    removed.unsubscribe();
    const workspace = uniqueName();
    await a.publish(workspace, 1);
    await kept.until(1);
    // One more round trip on the same path: had the removed listener been called, it would have been by now.
    await a.publish(workspace, 2);
    await kept.until(2);
    t.deepEqual(removed.heard, []);
    kept.unsubscribe();
  });
}
