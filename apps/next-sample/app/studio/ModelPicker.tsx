'use client';

import type { Model } from '@mediagen/core';
import { CATEGORIES, usableThroughApi } from './schema';

interface ModelPickerProps {
  models: Model[];
  selected: string;
  onSelect(slug: string): void;
}

/**
 * The account's models as one radio group (arrow keys move through it), sectioned by category. A
 * model the list says the API cannot use is shown, disabled, with why.
 */
export function ModelPicker({ models, selected, onSelect }: ModelPickerProps) {
  const groups = CATEGORIES.map((category) => ({ ...category, models: models.filter((m) => m.category === category.id) })).filter(
    (group) => group.models.length > 0,
  );
  return (
    <fieldset className="picker" id="models">
      <legend>Model</legend>
      {groups.map((group) => (
        <div key={group.id} className="picker-group" data-category={group.id}>
          <div className="picker-label">{group.label}</div>
          <div className="picker-options">
            {group.models.map((model) => {
              const usable = usableThroughApi(model);
              return (
                <label
                  key={model.slug}
                  className="model-option"
                  data-selected={model.slug === selected ? 'true' : 'false'}
                  data-unavailable={usable ? undefined : 'true'}
                  title={usable ? undefined : 'Not available through the API: its inputs cannot be shaped by a request.'}
                >
                  <input
                    type="radio"
                    name="model"
                    value={model.slug}
                    checked={model.slug === selected}
                    disabled={!usable}
                    onChange={() => onSelect(model.slug)}
                  />
                  <span className="model-name">{model.name}</span>
                  <span className="model-meta">
                    {usable
                      ? `${model.credits_band.flat ? `${model.credits_band.min}` : `${model.credits_band.min}–${model.credits_band.max}`} cr`
                      : 'not available through the API'}
                  </span>
                </label>
              );
            })}
          </div>
        </div>
      ))}
    </fieldset>
  );
}
