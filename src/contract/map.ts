/** A site's map as every side sees it: its URLs, with titles where its links gave them. Types only. */

export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}
