/**
 * The tools webwatch runs on what it fetches: Debian's poppler-utils (pdfinfo, pdftotext,
 * pdftoppm) and tesseract-ocr for PDFs, ffmpeg and ffprobe for audio and video. Each runs as a
 * child process: a malformed or hostile file can exhaust only a child, which is killed at the
 * request's deadline and capped in address space and output, never webwatch itself.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import type { Env } from '../../lib/env.js';

export type PdfTool = 'pdfinfo' | 'pdftotext' | 'pdftoppm' | 'tesseract';
export type MediaTool = 'ffmpeg' | 'ffprobe';
/** Office documents: pandoc and LibreOffice, run inside bubblewrap (documents/convert.ts). */
export type DocumentTool = 'pandoc' | 'soffice' | 'bwrap';
export type ChildTool = PdfTool | MediaTool | DocumentTool;

export const PDF_TOOLS_INSTALL_HINT =
  "install Debian's poppler-utils, tesseract-ocr and tesseract-ocr-eng (apt-get install poppler-utils tesseract-ocr tesseract-ocr-eng)";
export const MEDIA_TOOLS_INSTALL_HINT = "install Debian's ffmpeg (apt-get install ffmpeg)";
export const DOCUMENT_TOOLS_INSTALL_HINT =
  "install Debian's pandoc, libreoffice-writer-nogui, libreoffice-calc-nogui and bubblewrap (apt-get install pandoc libreoffice-writer-nogui libreoffice-calc-nogui bubblewrap)";

const PACKAGE_OF: Record<ChildTool, string> = {
  pdfinfo: 'poppler-utils',
  pdftotext: 'poppler-utils',
  pdftoppm: 'poppler-utils',
  tesseract: 'tesseract-ocr',
  ffmpeg: 'ffmpeg',
  ffprobe: 'ffmpeg',
  pandoc: 'pandoc',
  soffice: 'libreoffice-writer-nogui',
  bwrap: 'bubblewrap',
};
const isDocumentTool = (tool: ChildTool): tool is DocumentTool => tool === 'pandoc' || tool === 'soffice' || tool === 'bwrap';
const isMediaTool = (tool: ChildTool): tool is MediaTool => tool === 'ffmpeg' || tool === 'ffprobe';

export interface ToolLimits {
  /** Epoch milliseconds after which the child is killed. */
  deadline: number;
  /** Address-space cap of the child (ulimit -v). */
  memoryBytes: number;
  /** The child is killed when its standard output grows past this. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /**
   * Run inside bubblewrap: no network at all (a namespace of its own, not even loopback), the
   * system read-only, a private /tmp, and only `writableDir` writable. For converters of
   * untrusted documents, which may otherwise follow a document's links (LibreOffice fetches
   * linked images while it converts).
   */
  sandbox?: { writableDir: string };
}

export interface ToolResult {
  /** Exit code, or null when the child died of a signal (a crash, or the memory cap). */
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Why a child was stopped by webwatch rather than ending by itself. */
export class ToolStopped extends Error {
  constructor(
    readonly reason: 'deadline' | 'output' | 'aborted',
    readonly tool: ChildTool,
  ) {
    super(`${tool} was stopped (${reason})`);
  }
}

const found = new Map<ChildTool, string>();

/** The tool's path on PATH, or a clear error naming the Debian package that has it. */
export function findTool(tool: ChildTool, env: Env = process.env): string {
  const known = found.get(tool);
  if (known) return known;
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, tool);
    try {
      accessSync(path, constants.X_OK);
      found.set(tool, path);
      return path;
    } catch {
      // Not in this directory.
    }
  }
  const media = isMediaTool(tool);
  const documents = isDocumentTool(tool);
  const needs = media ? 'the audio and video formats need' : documents ? 'reading office documents needs' : 'reading PDFs needs';
  throw new WebwatchError(`${needs} ${tool} (Debian package ${PACKAGE_OF[tool]}), and it was not found on PATH`, {
    status: 501,
    code: media ? 'MEDIA_TOOLS_NOT_FOUND' : documents ? 'DOCUMENT_TOOLS_NOT_FOUND' : 'PDF_TOOLS_NOT_FOUND',
    // A missing ffmpeg exits 11, as a missing browser does (the exit-code table).
    ...(media && { exitCode: EXIT.browserMissing }),
    suggestion: media ? MEDIA_TOOLS_INSTALL_HINT : documents ? DOCUMENT_TOOLS_INSTALL_HINT : PDF_TOOLS_INSTALL_HINT,
  });
}

// The shell sets the address-space cap and then becomes the tool (exec), so killing the
// child's pid kills the tool.
const LIMITED = 'ulimit -v "$1" 2>/dev/null; shift; exec "$@"';

/** Runs `tool` with `args` within `limits`; resolves with whatever it did, rejects with ToolStopped. */
export function runTool(tool: ChildTool, args: readonly string[], limits: ToolLimits): Promise<ToolResult> {
  const path = findTool(tool);
  return new Promise((resolve, reject) => {
    if (limits.signal?.aborted) return reject(new ToolStopped('aborted', tool));
    const remaining = limits.deadline - Date.now();
    if (remaining <= 0) return reject(new ToolStopped('deadline', tool));
    const command = limits.sandbox ? [findTool('bwrap'), ...sandboxArgs(limits.sandbox.writableDir), path, ...args] : [path, ...args];
    const child = spawn('/bin/sh', ['-c', LIMITED, 'sh', String(Math.floor(limits.memoryBytes / 1024)), ...command], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // One thread per tesseract: pages are read in parallel instead, and the machine is shared.
      // Nothing of webwatch's own environment (keys) reaches a tool; tesseract's data path does.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        OMP_THREAD_LIMIT: '1',
        ...(process.env.TESSDATA_PREFIX && { TESSDATA_PREFIX: process.env.TESSDATA_PREFIX }),
        // LibreOffice writes its profile under HOME: the writable directory, when sandboxed.
        ...(limits.sandbox && { HOME: limits.sandbox.writableDir }),
      },
    });
    const stdout: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let stopped: ToolStopped | undefined;
    const stop = (reason: ToolStopped['reason']) => {
      if (stopped) return;
      stopped = new ToolStopped(reason, tool);
      child.kill('SIGKILL');
    };
    // setTimeout takes at most 2^31-1 ms and runs a longer (or an infinite) delay at once.
    const timer = Number.isFinite(remaining) ? setTimeout(() => stop('deadline'), Math.min(remaining, 2 ** 31 - 1)) : undefined;
    const onAbort = () => stop('aborted');
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxOutputBytes) return stop('output');
      stdout.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // Enough to explain a failure; a tool that floods its errors is not kept in memory.
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      if (stopped) reject(stopped);
      else resolve({ code, stdout: Buffer.concat(stdout), stderr });
    });
  });
}

/**
 * bubblewrap's arguments: nothing of the network, and of the file system only the system's
 * programs and settings (/usr, /etc) read-only and the one writable directory, so that a
 * document that links a local file (a picture or an included text at file:///...) finds
 * neither webwatch's database nor anyone's home. /bin and /lib are /usr's on Debian.
 */
function sandboxArgs(writableDir: string): string[] {
  const bind = (flag: string, path: string) => [flag, path, path];
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    ...bind('--ro-bind', '/usr'),
    ...bind('--ro-bind', '/etc'),
    ...['bin', 'sbin', 'lib', 'lib64'].flatMap((name) => ['--symlink', `usr/${name}`, `/${name}`]),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    ...bind('--bind', writableDir),
    '--chdir',
    writableDir,
  ];
}
