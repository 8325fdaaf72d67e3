'use client';

import { ACCEPTED_FORMATS, INPUT_MAX_BYTES, type InputKind, MEDIA_FORMATS } from '@mediagen/core/wire';
import type { UploadProgress } from '@mediagen/next/client';
import { type DragEvent, useEffect, useId, useState } from 'react';

interface InputDropProps {
  /** The param (`input_image`, `input_video`, `input_audio`): the file input's id is `param-<field>`. */
  field: string;
  kind: InputKind;
  label: string;
  required: boolean;
  /** A file chosen or dropped, or a link / generation id typed in. */
  value: File | string | undefined;
  onChange(value: File | string | undefined): void;
  /** Bytes sent while the form's files upload (they go up once, when chosen, to be priced). */
  progress: UploadProgress | undefined;
  /** Why the last file could not be used (an upload the app refused), in words. */
  problem?: string | null | undefined;
  /** Whether a generation id may stand for the input (images and clips; not audio). */
  takesIds: boolean;
}

const NOUN: Record<InputKind, string> = { image: 'an image', video: 'a clip', audio: 'a recording' };
/** What the file picker offers: the types the service takes of this kind (the app reads the bytes anyway). */
const acceptOf = (kind: InputKind) =>
  Object.values(MEDIA_FORMATS)
    .filter((format) => format.kind === kind)
    .map((format) => format.type)
    .join(',');
const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
const sizeOf = (bytes: number) =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * One input of the model: a drop zone and file picker with a preview of the file (a thumbnail, a
 * player), or a link typed in. The file is checked here only for what the page can know (its
 * size against the kind's limit); the app reads its bytes when it is uploaded.
 */
export function InputDrop({ field, kind, label, required, value, onChange, progress, problem, takesIds }: InputDropProps) {
  const [dragging, setDragging] = useState(false);
  const [local, setLocal] = useState<string | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const hint = useId();
  const file = value instanceof File ? value : undefined;
  const max = INPUT_MAX_BYTES[kind];

  useEffect(() => {
    if (!file) return setPreview(null);
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const take = (chosen: File | undefined) => {
    if (!chosen) return;
    if (chosen.size > max) return setLocal(`That file is ${sizeOf(chosen.size)}: ${NOUN[kind]} may be at most ${megabytes(max)}.`);
    if (chosen.type && !chosen.type.startsWith(`${kind}/`))
      return setLocal(`That file is not ${NOUN[kind]}: use ${ACCEPTED_FORMATS[kind]}.`);
    setLocal(null);
    onChange(chosen);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    take(event.dataTransfer.files[0]);
  };
  const percent = file && progress && progress.total > 0 ? Math.floor((progress.loaded / progress.total) * 100) : null;
  const shown = local ?? problem ?? null;

  return (
    <div className="field wide input-drop" data-param={field} data-kind={kind}>
      <label htmlFor={`param-${field}`}>
        {label}
        {required ? <span className="hint"> required</span> : null}
      </label>
      {file && preview ? (
        <div className="drop-preview" id={`preview-${field}`}>
          {kind === 'image' ? (
            // biome-ignore lint/performance/noImgElement: a local blob: preview, nothing for next/image to optimise
            <img src={preview} alt={`The chosen ${kind}: ${file.name}`} />
          ) : kind === 'video' ? (
            <video src={preview} controls muted playsInline />
          ) : (
            // biome-ignore lint/a11y/useMediaCaption: the person's own recording, played back to them
            <audio src={preview} controls />
          )}
          <div className="drop-meta">
            <strong title={file.name}>{file.name || `Your ${kind}`}</strong>
            <span className="muted small">
              {sizeOf(file.size)}
              {percent !== null ? ` · uploading ${percent}%` : ''}
            </span>
            {percent !== null ? <progress max={100} value={percent} aria-label={`Uploading ${file.name}`} /> : null}
            <button type="button" className="ghost" id={`remove-${field}`} onClick={() => onChange(undefined)}>
              Remove
            </button>
          </div>
        </div>
      ) : (
        <label
          className={`drop${dragging ? ' dragging' : ''}`}
          id={`drop-${field}`}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <input
            id={`param-${field}`}
            type="file"
            accept={acceptOf(kind)}
            className="visually-hidden"
            aria-describedby={hint}
            onChange={(event) => {
              take(event.target.files?.[0]);
              event.target.value = '';
            }}
          />
          <span className="drop-title">
            Drop {NOUN[kind]} here or <u>choose a file</u>
          </span>
          <span className="muted small" id={hint}>
            {ACCEPTED_FORMATS[kind]}, up to {megabytes(max)}
          </span>
        </label>
      )}
      {!file ? (
        <input
          id={`link-${field}`}
          type="url"
          inputMode="url"
          className="drop-link"
          aria-label={`${label}: or a link`}
          placeholder={takesIds ? 'or paste an https link or a generation id' : 'or paste an https link'}
          value={typeof value === 'string' ? value : ''}
          onChange={(event) => onChange(event.target.value || undefined)}
        />
      ) : null}
      {shown ? (
        <span className="issue" id={`issue-${field}`}>
          {shown}
        </span>
      ) : null}
    </div>
  );
}
