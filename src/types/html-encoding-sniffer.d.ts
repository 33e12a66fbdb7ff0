declare module 'html-encoding-sniffer' {
  /** The encoding of an HTML byte stream, by the HTML standard's sniffing algorithm. */
  export default function htmlEncodingSniffer(bytes: Uint8Array, options?: { transportLayerEncodingLabel?: string; defaultEncoding?: string }): string;
}
