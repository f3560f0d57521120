package org.pettingllms.torch.text;

/**
 * A character-level codec for the tiny models trained here from scratch on compact prompts: ids 0 (padding),
 * 1 (begin), 2 (end of answer), then newline and printable ASCII (space to tilde), 99 ids in all. Other characters
 * encode as {@code ?}; special ids decode to nothing.
 */
public final class CharCodec implements TextCodec {
    public static final int EOS = 2;
    public static final int VOCAB = 99;
    private static final int NEWLINE = 3;

    @Override
    public int[] encode(String text) {
        return text.chars().map(CharCodec::id).toArray();
    }

    private static int id(int c) {
        if (c == '\n') {
            return NEWLINE;
        }
        return c >= 32 && c <= 126 ? 4 + (c - 32) : 4 + ('?' - 32);
    }

    @Override
    public String decode(int[] ids) {
        StringBuilder sb = new StringBuilder(ids.length);
        for (int id : ids) {
            if (id == NEWLINE) {
                sb.append('\n');
            } else if (id >= 4 && id < VOCAB) {
                sb.append((char) (32 + id - 4));
            }
        }
        return sb.toString();
    }

    @Override
    public int[] stopTokenIds() {
        return new int[] {EOS};
    }
}
