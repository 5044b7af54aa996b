import type { Invite } from "../domain/models.js"

/** How long an invitation link works. */
export const INVITE_DAYS = 3

export const isExpired = (invite: Invite, now: Date = new Date()): boolean =>
  now.getTime() - invite.created_at.getTime() > INVITE_DAYS * 24 * 60 * 60 * 1000

/** The web app's page where the invitee chooses a password. */
export const inviteUrl = (invite: Invite): string => `/signup/${invite.id}`
