import { AbstractTokenizer, EndOfStreamError, type IFileInfo, type IReadChunkOptions } from 'strtok3';
import type { BlockReader } from './block-reader.js';

/**
 * A strtok3 tokenizer over a BlockReader, with random access: music-metadata
 * then seeks past what it does not need (clusters, audio frames) instead of
 * reading it.
 */
export class RangeTokenizer extends AbstractTokenizer {
  readonly fileInfo: IFileInfo;
  readonly #reader: BlockReader;

  constructor(reader: BlockReader, mimeType: string) {
    super();
    this.#reader = reader;
    this.fileInfo = { size: reader.size, mimeType };
  }

  supportsRandomAccess(): boolean {
    return true;
  }

  setPosition(position: number): void {
    this.position = position;
  }

  async readBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const read = await this.peekBuffer(buffer, options);
    this.position = (options?.position ?? this.position) + read;
    return read;
  }

  async peekBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const position = options?.position ?? this.position;
    const length = options?.length ?? buffer.length;
    const bytes = await this.#reader.read(position, length);
    if (bytes.length < length && !options?.mayBeLess) throw new EndOfStreamError();
    buffer.set(bytes, 0);
    return bytes.length;
  }
}
