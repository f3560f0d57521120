package org.pettingllms.torch.text;

/** Turns text into token ids and back, for one model. */
public interface TextCodec {
    int[] encode(String text);

    String decode(int[] ids);

    /** Token ids that end a completion (end-of-sequence, end-of-turn). */
    int[] stopTokenIds();
}
