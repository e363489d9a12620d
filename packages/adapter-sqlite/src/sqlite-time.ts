/** Times are stored as INTEGER milliseconds since the epoch. */
export const fromMillis = (value: number): Date => new Date(value);

export const fromNullableMillis = (value: number | null): Date | null => (value === null ? null : new Date(value));

export const toNullableMillis = (value: Date | null): number | null => (value === null ? null : value.getTime());
