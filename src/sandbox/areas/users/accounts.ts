// What an account write (create, update) may carry, and the service's rules on it: the fields, their checks (every
// failing field named at once), an email or username already taken, a sign-in identity already linked, the avatar
// file; and how the profile fields are applied.
import { z } from 'zod';
import { paramError, validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Store, User } from '../../core/store.js';

const text = () => z.string();
const flag = () => param.boolean().optional();
const upload = z.union([
  z.string(),
  z.strictObject({ filename: z.string(), content_type: z.string(), content: z.instanceof(Buffer) }),
]);

/** What create and update share. */
const accountShape = {
  password: text().optional(),
  social_messenger: text().optional(),
  social_network: text().optional(),
  social_microblog: text().optional(),
  website_url: text().optional(),
  organization: text().optional(),
  projects_limit: param.integer().optional(),
  extern_uid: text().optional(),
  provider: text().optional(),
  bio: text().optional(),
  location: text().optional(),
  public_email: text().optional(),
  admin: flag(),
  can_create_group: flag(),
  external: flag(),
  // An image file part of a multipart form; anything else is refused, as the service refuses it.
  avatar: upload.optional(),
  theme_id: param.integer().optional(),
  color_scheme_id: param.integer().optional(),
  // The spec: true, false (the default), or null read as false.
  private_profile: param.boolean().nullable().optional(),
  // Higher-tier CI minute quotas: accepted, and meaningless in a sandbox without runners.
  shared_runners_minutes_limit: param.integer().optional(),
  extra_shared_runners_minutes_limit: param.integer().optional(),
};

export const createParams = z.object({
  email: text(),
  username: text(),
  name: text(),
  reset_password: flag(),
  force_random_password: flag(),
  skip_confirmation: flag(),
  ...accountShape,
});

export const updateParams = z.object({
  email: text().optional(),
  username: text().optional(),
  name: text().optional(),
  group_id_for_saml: param.integer().optional(),
  skip_reconfirmation: flag(),
  note: text().optional(),
  ...accountShape,
});

export type AccountParams = z.infer<z.ZodObject<typeof accountShape>> & {
  email?: string;
  username?: string;
  name?: string;
};

const PROFILE_FIELDS = [
  'social_messenger',
  'social_network',
  'social_microblog',
  'website_url',
  'organization',
  'bio',
  'location',
  'public_email',
  'can_create_group',
  'external',
  'theme_id',
  'color_scheme_id',
  'private_profile',
  'projects_limit',
  'shared_runners_minutes_limit',
  'extra_shared_runners_minutes_limit',
] as const;

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const USERNAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
const MIN_PASSWORD = 8;

/** Grape's message for a pair of parameters that come together or not at all. */
export function checkIdentityPair(params: { extern_uid?: string; provider?: string }): void {
  if ((params.extern_uid === undefined) !== (params.provider === undefined)) {
    throw paramError('extern_uid, provider provide all or none of parameters');
  }
}

/** Model validation of the fields given; every failing field is named at once. */
export function validate(params: AccountParams): void {
  const errors: Record<string, string[]> = {};
  if (params.email !== undefined && !EMAIL.test(params.email)) errors.email = ['is invalid'];
  if (params.username !== undefined && !USERNAME.test(params.username)) errors.username = ['is invalid'];
  if (params.name !== undefined && params.name.trim() === '') errors.name = ["can't be blank"];
  if (params.password !== undefined && params.password.length < MIN_PASSWORD) {
    errors.password = [`is too short (minimum is ${MIN_PASSWORD} characters)`];
  }
  if (params.projects_limit !== undefined && params.projects_limit < 0)
    errors.projects_limit = ['must be greater than or equal to 0'];
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

/** Which of email and username another user already has. */
export function taken(store: Store, params: { email?: string; username?: string }, self?: User): string | undefined {
  const others = store.users.filter((u) => u !== self);
  if (params.email !== undefined && others.some((u) => u.email.toLowerCase() === params.email!.toLowerCase()))
    return 'Email';
  if (params.username !== undefined && others.some((u) => u.username.toLowerCase() === params.username!.toLowerCase()))
    return 'Username';
  return undefined;
}

/** The image types the service's avatar uploader takes, by the file's extension as it decides (clients such as
 * python-gitlab send the part with no content type, or application/octet-stream). */
const AVATAR_EXTENSIONS = /\.(png|jpe?g|gif|bmp|ico|tiff?|webp)$/i;

/** The uploaded avatar: an image file, as the service's uploader takes (a plain string is no file). */
export function avatarOf(params: AccountParams): User['avatar'] {
  const value = params.avatar;
  if (value === undefined) return undefined;
  if (
    typeof value === 'string' ||
    !(/^image\//.test(value.content_type) || AVATAR_EXTENSIONS.test(value.filename)) ||
    value.content.length === 0
  ) {
    throw paramError('avatar is invalid');
  }
  return value;
}

/** The other account an extern_uid at a provider already signs in to, if any. */
export function identityOwner(
  store: Store,
  params: { extern_uid?: string; provider?: string },
  self?: User,
): User | undefined {
  if (params.extern_uid === undefined || params.provider === undefined) return undefined;
  return store.users.find(
    (u) => u !== self && u.identities.some((i) => i.provider === params.provider && i.extern_uid === params.extern_uid),
  );
}

export function applyProfile(user: User, params: AccountParams): void {
  for (const key of PROFILE_FIELDS) {
    const value = params[key];
    if (value !== undefined) Object.assign(user, { [key]: value });
  }
  if (params.private_profile === null) user.private_profile = false;
  const avatar = avatarOf(params);
  if (avatar) user.avatar = avatar;
  if (params.admin !== undefined) user.is_admin = params.admin;
}
