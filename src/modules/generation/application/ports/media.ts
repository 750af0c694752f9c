/** Bytes a provider produced, before they are copied into our storage. */
export interface GeneratedMedia {
  bytes: Buffer;
  contentType: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** Who the media is for; the text and image adapters write in the character's voice and look. */
export interface CharacterBrief {
  id: string;
  name: string;
  niche: string;
  tone?: string;
  aesthetic?: string;
  ageRange?: string;
  location?: string;
  occupation?: string;
  stylePresets: string[];
  /** The primary reference image, for image-to-image and video; null when the character has none. */
  primaryImageUrl: string | null;
}
