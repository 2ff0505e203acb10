/**
 * What a request may say of the API token it gets, by a login or from its
 * owner: a name, Sanctum's abilities and a lifetime in minutes. Read from JSON
 * (`"abilities": ["…"]`) or a form (`abilities[]=…`, repeated, or one
 * `abilities` field separated by commas or spaces); anything else is the token
 * site's 422. The API description and the browsable form come from here too.
 */
import { cleanValue, typeName, type WritableField } from '../cleaning.js';
import { clock } from '../clock.js';
import { FieldErrors } from '../errors.js';
import { field } from '../fields.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema } from '../openapi/types.js';
import { formList, isFormData } from '../parsers.js';
import type { FieldDescription } from '../serializers.js';

/** At most this many abilities, each at most this long. */
export const MAX_ABILITIES = 100;
const ABILITY_LENGTH = 255;
/** The longest lifetime one may ask for, in minutes (about 19 years), as TOKEN_EXPIRATION_MINUTES allows. */
export const MAX_EXPIRES_IN = 10_000_000;
/** How a form's single `abilities` field separates them. */
/** The form field of a bracketed list of abilities, as the API description names it. */
const FORM_LIST = 'abilities[]';
const SEPARATORS = /[\s,]+/u;

export interface TokenOptions {
  name?: string;
  abilities?: string[];
  /** Minutes the token lives from now. */
  expiresIn?: number;
}

/** Which fields name the token (the first one sent counts), and whether one must be sent. */
export interface TokenNaming {
  names: readonly [string, ...string[]];
  required: boolean;
}

/** A login's: `token_name`, or Sanctum's mobile `device_name`; the declared login token name otherwise. */
export const LOGIN_NAMING: TokenNaming = { names: ['token_name', 'device_name'], required: false };
/** A token its owner makes: `name`, required (as Jetstream's API token form). */
export const OWNER_NAMING: TokenNaming = { names: ['name'], required: true };

function spec(name: string, declared: WritableField['field'], maxLength?: number): WritableField {
  // The token site's own fields: Laravel's `string` rule refuses a number.
  return { name, field: declared, required: false, allowBlank: false, maxLength, numbersAsText: false };
}

/** Not sent: absent, null, or blank (Laravel turns empty strings into null). */
function sent(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');
}

/** The abilities as sent: a JSON value, or a form's list (repeated, bracketed, or one value of them). */
function sentAbilities(data: Record<string, unknown>, form: boolean): unknown {
  if (!form) return data.abilities;
  const listed = formList(data, 'abilities');
  if (listed) return listed;
  return sent(data.abilities) ? String(data.abilities).split(SEPARATORS).filter((ability) => ability !== '') : undefined;
}

/** Reads and checks what a request says of its new token. */
export class TokenOptionsReader {
  private readonly name: WritableField;
  private readonly ability = spec('abilities', field.string(), ABILITY_LENGTH);
  private readonly expiresIn = spec('expires_in', field.integer({ min: 1, max: MAX_EXPIRES_IN }));

  constructor(
    private readonly naming: TokenNaming,
    nameLength: number,
  ) {
    this.name = spec(naming.names[0], field.string(), nameLength);
  }

  /** The options sent in `data` (a body already parsed); throws one ValidationError naming every bad field. */
  async read(data: Record<string, unknown>): Promise<TokenOptions> {
    const errors = new FieldErrors();
    const form = isFormData(data);
    const options: TokenOptions = {};
    const named = this.naming.names.find((name) => sent(data[name]));
    if (named) {
      const cleaned = cleanValue(this.name, data[named], form);
      if ('error' in cleaned) errors.add(named, cleaned.error, cleaned.params);
      else options.name = cleaned.value as string;
    } else if (this.naming.required) {
      errors.add(this.naming.names[0], 'required');
    }
    const abilities = sentAbilities(data, form);
    if (abilities !== undefined && abilities !== null) options.abilities = this.abilities(abilities, errors);
    if (sent(data.expires_in)) {
      const cleaned = cleanValue(this.expiresIn, data.expires_in, form);
      if ('error' in cleaned) errors.add('expires_in', cleaned.error, cleaned.params);
      else options.expiresIn = cleaned.value as number;
    }
    errors.throwIfAny();
    return options;
  }

  /** A list of abilities without repeats; each bad one is named by its place (`abilities.0`), as Laravel names them. */
  private abilities(raw: unknown, errors: FieldErrors): string[] {
    if (!Array.isArray(raw)) {
      errors.add('abilities', 'not_a_list', { input_type: typeName(raw) });
      return [];
    }
    if (raw.length > MAX_ABILITIES) {
      errors.add('abilities', 'too_many_values', { max: MAX_ABILITIES });
      return [];
    }
    const abilities: string[] = [];
    raw.forEach((item: unknown, index) => {
      const cleaned = typeof item === 'string' ? cleanValue(this.ability, item) : { error: 'invalid_string' as const };
      if ('error' in cleaned) errors.add(`abilities.${index}`, cleaned.error, 'params' in cleaned ? cleaned.params : {});
      else if (!abilities.includes(cleaned.value as string)) abilities.push(cleaned.value as string);
    });
    return abilities;
  }

  /** The fields a validation error may name (besides each ability's place). */
  get fields(): string[] {
    return [...this.naming.names, 'abilities', 'expires_in'];
  }

  /** The fields as a JSON body sends them; `ability` is an example of one. */
  jsonSchema(ability: string, nameExample: string): JsonSchema {
    return {
      type: 'object',
      properties: {
        ...this.nameSchemas(nameExample),
        abilities: { type: 'array', items: this.abilitySchema(), maxItems: MAX_ABILITIES, example: [ability] },
        expires_in: { type: 'integer', minimum: 1, maximum: MAX_EXPIRES_IN, example: 43_200 },
      },
      ...(this.naming.required ? { required: [this.naming.names[0]] } : {}),
    };
  }

  /** The fields as a form sends them: text, and the abilities repeated or in one field. */
  formSchema(ability: string, nameExample: string): JsonSchema {
    return {
      type: 'object',
      properties: {
        ...this.nameSchemas(nameExample),
        [FORM_LIST]: { type: 'array', items: this.abilitySchema(), maxItems: MAX_ABILITIES, example: [ability] },
        abilities: { type: 'string', example: ability },
        expires_in: { type: 'string', pattern: '^\\d+$', example: '43200' },
      },
      ...(this.naming.required ? { required: [this.naming.names[0]] } : {}),
    };
  }

  private nameSchemas(example: string): Record<string, JsonSchema> {
    const schema: JsonSchema = { type: 'string', minLength: 1, maxLength: this.name.maxLength, example };
    return Object.fromEntries(this.naming.names.map((name) => [name, schema]));
  }

  private abilitySchema(): JsonSchema {
    return { type: 'string', minLength: 1, maxLength: ABILITY_LENGTH };
  }

  /** The fields as OPTIONS describes them, for the browsable page's form. */
  describe(t: Translate): Record<string, FieldDescription> {
    const [name] = this.naming.names;
    return {
      [name]: { type: 'string', required: this.naming.required, read_only: false, label: t(`fields.${name}`), max_length: this.name.maxLength },
      abilities: { type: 'list', required: false, read_only: false, label: t('fields.abilities') },
      expires_in: { type: 'integer', required: false, read_only: false, label: t('fields.expires_in'), min_value: 1, max_value: MAX_EXPIRES_IN },
    };
  }
}

/**
 * When a new token expires: after the minutes asked for, cut to `maxMinutes`
 * (TOKEN_MAX_EXPIRATION_MINUTES), which is also the lifetime of a token that
 * asks none; null: never by itself.
 */
export function expiryOf(expiresIn: number | undefined, maxMinutes: number | null): Date | null {
  const minutes = expiresIn === undefined ? maxMinutes : Math.min(expiresIn, maxMinutes ?? expiresIn);
  return minutes === null ? null : new Date(clock().reading() + minutes * 60_000);
}
