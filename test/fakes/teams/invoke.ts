/**
 * What Teams accepts as a bot's answer to an Adaptive Card Action.Execute
 * (`adaptiveCard/action` invoke), per "Universal Actions for Adaptive
 * Cards" (https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/universal-actions-for-adaptive-cards/work-with-universal-actions-for-adaptive-cards):
 * HTTP 200 whose body is an adaptive card invoke response: `statusCode`,
 * `type` one of the card, message, error or login-request types, and a
 * `value` that fits the type (an AdaptiveCard, a message string, an error
 * object). Given within the invoke deadline, or Teams shows the person an
 * error instead.
 */
import type { BotAnswer } from './deliver.js';

const CARD = 'application/vnd.microsoft.card.adaptive';
const MESSAGE = 'application/vnd.microsoft.activity.message';
const ERROR = 'application/vnd.microsoft.error';
const LOGIN = 'application/vnd.microsoft.activity.loginRequest';

/** Why Teams would not take `answer` to a card action, or undefined when it would. */
export function cardActionAnswerProblem(answer: BotAnswer, deadlineMs: number): string | undefined {
  if (answer.late)
    return `answered after ${Math.round(answer.elapsedMs)} ms; Teams gives up after ${deadlineMs} ms`;
  if (answer.status !== 200) return `HTTP ${answer.status}; an adaptiveCard/action answer is HTTP 200`;
  const body = answer.body as { statusCode?: unknown; type?: unknown; value?: unknown } | undefined;
  if (typeof body?.statusCode !== 'number') return 'the body needs a numeric statusCode';
  if (body.type === CARD) {
    return (body.value as { type?: unknown } | undefined)?.type === 'AdaptiveCard'
      ? undefined
      : `type ${CARD} needs an AdaptiveCard value`;
  }
  if (body.type === MESSAGE)
    return typeof body.value === 'string' ? undefined : `type ${MESSAGE} needs a string value`;
  if (body.type === ERROR)
    return typeof body.value === 'object' && body.value !== null
      ? undefined
      : `type ${ERROR} needs an error object value`;
  if (body.type === LOGIN) return undefined;
  return `unknown type ${JSON.stringify(body.type)}; expected ${CARD}, ${MESSAGE}, ${ERROR} or ${LOGIN}`;
}
