// A tiny zip writer for the trace reader's tests: deflated entries, with knobs for hostile zips (a declared
// size that lies, damaged data, a bad local header, a sparse hole before the archive).
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { tempDir } from './temp.js';

export interface ZipPart {
  name: string;
  /** The entry's bytes before compression. */
  text?: string | Buffer;
  /** The size the headers declare (default: the real one). */
  declared?: number;
  /** Bytes stored in place of the deflated text (damaged data). */
  raw?: Buffer;
  /** A local header whose signature is not PK\3\4. */
  badLocal?: boolean;
}

/** A zip of deflated entries starting `hole` bytes into the file (a sparse hole: no disk spent). No CRC: yauzl checks none. */
export function writeZip(parts: ZipPart[], hole = 0): string {
  const file = path.join(tempDir('elenchos-zip-'), 'trace.zip');
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = hole;
  for (const part of parts) {
    const plain = Buffer.from(part.text ?? '');
    const data = part.raw ?? deflateRawSync(plain);
    const declared = part.declared ?? plain.length;
    const name = Buffer.from(part.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(part.badLocal ? 0x04034b51 : 0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  const fd = openSync(file, 'w');
  writeSync(fd, Buffer.concat([...locals, directory, end]), 0, undefined, hole);
  closeSync(fd);
  return file;
}
