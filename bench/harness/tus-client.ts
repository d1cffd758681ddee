import { Upload, type HttpResponse } from 'tus-js-client';

export interface TusOutcome {
  /** The asset the finished upload made (`Switchyard-Asset-Id` of the last PATCH). */
  readonly assetId: string;
  /** PATCH requests sent (creation is one POST before them). */
  readonly patches: number;
  readonly seconds: number;
  /** Decimal megabytes of file content per second, from the creating POST to the last PATCH's answer. */
  readonly mbPerSecond: number;
}

/** What any tus server's finished upload gives back: the upload's url and the last PATCH's answer. */
export interface TusServerOutcome extends Omit<TusOutcome, 'assetId'> {
  readonly uploadUrl: string;
  readonly lastResponse: HttpResponse;
}

/**
 * Uploads `bytes` over tus with tus-js-client itself (Node's http stack, keep-alive
 * agent): a POST to create, then one PATCH of `chunkSize` bytes after another, as
 * a browser or Node client configured with that chunk size does. No retries: a
 * failed request fails the benchmark instead of hiding in the figure.
 */
export async function tusUpload(url: string, token: string, bytes: Buffer, chunkSize: number): Promise<TusOutcome> {
  const { lastResponse, patches, seconds, mbPerSecond } = await tusUploadTo(
    `${url}/v1/uploads`,
    { authorization: `Bearer ${token}` },
    bytes,
    chunkSize,
  );
  const assetId = lastResponse.getHeader('switchyard-asset-id');
  if (!assetId) throw new Error(`the last PATCH answered ${lastResponse.getStatus()} without Switchyard-Asset-Id`);
  return { assetId, patches, seconds, mbPerSecond };
}

/** The same upload to any tus server's creation `endpoint` (ours, or a peer such as @tus/server), with these request headers. */
export async function tusUploadTo(
  endpoint: string,
  headers: Record<string, string>,
  bytes: Buffer,
  chunkSize: number,
): Promise<TusServerOutcome> {
  let patches = 0;
  const started = process.hrtime.bigint();
  const done = await new Promise<{ uploadUrl: string; lastResponse: HttpResponse }>((resolve, reject) => {
    const upload = new Upload(bytes, {
      endpoint,
      chunkSize,
      headers,
      metadata: { filename: 'bench.bin', label: 'bench' },
      retryDelays: null,
      storeFingerprintForResuming: false,
      onBeforeRequest: (req) => {
        if (req.getMethod() === 'PATCH') patches++;
      },
      onSuccess: ({ lastResponse }) => {
        if (upload.url) resolve({ uploadUrl: upload.url, lastResponse });
        else reject(new Error(`the upload finished (${lastResponse.getStatus()}) without an upload url`));
      },
      onError: reject,
    });
    upload.start();
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { ...done, patches, seconds, mbPerSecond: bytes.length / 1e6 / seconds };
}
