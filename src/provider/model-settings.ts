/**
 * Checks the per-model settings against the model registry before anything
 * is sent, so a setting the model refuses stops start-up (exit 2) with a
 * sentence naming the setting, the model and what it accepts, instead of
 * answering every chat message with a raw 400.
 */
import { SwitchboardError } from '../errors.js';
import type { Effort, ThinkingSetting } from '../vocabulary.js';
import { getModelInfo, type ModelInfo } from './models.js';

/** The settings a model may refuse. */
export interface ModelSettingsToCheck {
  effort?: Effort;
  thinking?: ThinkingSetting;
}

function refuse(variable: string, value: string, model: string, accepted: string): SwitchboardError {
  return new SwitchboardError(
    'CONFIG_INVALID',
    `${variable}=${value} is not accepted by ${model}: ${accepted}`,
    { detail: { variable, model } },
  );
}

/**
 * Throws `CONFIG_INVALID` when `model` (as the registry knows it) refuses
 * one of `settings`. A model the registry does not know is not checked:
 * its settings go to the API as given.
 *
 * @example checkModelSettings('claude-opus-4-6', { effort: 'xhigh' }); // throws: accepts low, medium, high, max
 */
export function checkModelSettings(
  model: string,
  settings: ModelSettingsToCheck,
  info: ModelInfo = getModelInfo(model),
): void {
  if (!info.known) return;
  const { effort, thinking } = settings;
  // Effort page: the levels differ per model, and some models take none.
  if (effort !== undefined && !info.efforts.includes(effort)) {
    throw refuse(
      'SWITCHBOARD_EFFORT',
      effort,
      model,
      info.efforts.length === 0
        ? 'it takes no effort setting; leave SWITCHBOARD_EFFORT unset.'
        : `it accepts ${info.efforts.join(', ')} (or leave SWITCHBOARD_EFFORT unset for its default).`,
    );
  }
  // Sonnet 5.5 migration guide: `between_tools` exists on Sonnet 5.5 and Haiku 5.5 only.
  if (thinking === 'between_tools' && info.thinking !== 'adaptive') {
    throw refuse(
      'SWITCHBOARD_THINKING',
      thinking,
      model,
      'it accepts adaptive only (between_tools is for Sonnet 5.5 and Haiku 5.5).',
    );
  }
}
