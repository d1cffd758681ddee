import { Upload } from 'tus-js-client';

export interface TusOutcome {
  /** The asset the finished upload made (`Switchyard-Asset-Id` of the last PATCH). */
  readonly assetId: string;
  /** PATCH requests sent (creation is one POST before them). */
  readonly patches: number;
  readonly seconds: number;
  /** Decimal megabytes of file content per second, from the creating POST to the last PATCH's answer. */
  readonly mbPerSecond: number;
}

/**
 * Uploads `bytes` over tus with tus-js-client itself (Node's http stack, keep-alive
 * agent): a POST to create, then one PATCH of `chunkSize` bytes after another, as
 * a browser or Node client configured with that chunk size does. No retries: a
 * failed request fails the benchmark instead of hiding in the figure.
 */
export async function tusUpload(url: string, token: string, bytes: Buffer, chunkSize: number): Promise<TusOutcome> {
  let patches = 0;
  const started = process.hrtime.bigint();
  const assetId = await new Promise<string>((resolve, reject) => {
    const upload = new Upload(bytes, {
      endpoint: `${url}/v1/uploads`,
      chunkSize,
      headers: { authorization: `Bearer ${token}` },
      metadata: { filename: 'bench.bin', label: 'bench' },
      retryDelays: null,
      storeFingerprintForResuming: false,
      onBeforeRequest: (req) => {
        if (req.getMethod() === 'PATCH') patches++;
      },
      onSuccess: ({ lastResponse }) => {
        const id = lastResponse.getHeader('switchyard-asset-id');
        if (id) resolve(id);
        else reject(new Error(`the last PATCH answered ${lastResponse.getStatus()} without Switchyard-Asset-Id`));
      },
      onError: reject,
    });
    upload.start();
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { assetId, patches, seconds, mbPerSecond: bytes.length / 1e6 / seconds };
}
