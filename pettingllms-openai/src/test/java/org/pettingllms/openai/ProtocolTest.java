package org.pettingllms.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.PolicyRef;

/** Request bodies as the servers expect them; response bodies as they send them (resources/responses). */
class ProtocolTest {
    static JsonNode body(String name) throws Exception {
        try (InputStream in = ProtocolTest.class.getResourceAsStream("/responses/" + name)) {
            return Protocol.JSON.readTree(in);
        }
    }

    @Test
    void vllmRequestsSendTokenIdsAndAskForTokenIdsAndLogprobs() {
        JsonNode r = Protocol.VLLM.request(
                "plan-v3", new int[] {1, 17, 42}, 4, new SamplingParams(1.0, 0, 0.9, 24, List.of("\n"), 77));
        assertThat(r.toString())
                .isEqualTo("{\"model\":\"plan-v3\",\"prompt\":[1,17,42],\"n\":4,\"max_tokens\":24,"
                        + "\"temperature\":1.0,\"top_p\":0.9,\"top_k\":-1,\"seed\":77,\"logprobs\":0,\"return_token_ids\":true,"
                        + "\"stop\":[\"\\n\"]}");
    }

    @Test
    void sglangRequestsNameTheAdapterAsLoraPath() {
        JsonNode r = Protocol.SGLANG.request(
                "plan-v3", new int[] {1, 17}, 2, new SamplingParams(0.7, 5, 1.0, 8, List.of(), 3));
        assertThat(r.path("input_ids").toString()).isEqualTo("[1,17]");
        assertThat(r.path("sampling_params").toString())
                .isEqualTo("{\"n\":2,\"max_new_tokens\":8,\"temperature\":0.7,"
                        + "\"top_p\":1.0,\"top_k\":5,\"sampling_seed\":3,\"stop\":[]}");
        assertThat(r.path("return_logprob").asBoolean()).isTrue();
        assertThat(r.path("lora_path").asText()).isEqualTo("plan-v3");
        assertThat(Protocol.SGLANG
                        .request(null, new int[] {1}, 1, new SamplingParams(1, 0, 1, 1, List.of(), 1))
                        .has("lora_path"))
                .isFalse();
    }

    @Test
    void vllmChoicesAreReadInIndexOrderWithTheirFinishReasons() throws Exception {
        List<Protocol.Choice> c = Protocol.VLLM.parse(body("vllm-completions.json"), 3, "plan-v3");
        assertThat(c.get(0).tokens()).containsExactly(49, 49, 35, 2);
        assertThat(c.get(0).logprobs()).containsExactly(-0.25f, -1.5f, -0.01f, -0.002f);
        assertThat(c.get(0).text()).isEqualTo("RRD");
        assertThat(c.get(0).finish()).isEqualTo(FinishReason.EOS);
        assertThat(c.get(1).finish()).isEqualTo(FinishReason.LENGTH);
        assertThat(c.get(2).finish()).isEqualTo(FinishReason.STOP_STRING);
        assertThat(c.get(2).tokens()).containsExactly(52, 3);
        assertThat(c)
                .allSatisfy(x -> assertThat(OpenAiSampler.versionOf(x.model())).isEqualTo(3));
    }

    @Test
    void sglangResultsOneOrSeveral() throws Exception {
        Protocol.Choice one = Protocol.SGLANG
                .parse(body("sglang-generate.json"), 1, "plan-v3")
                .get(0);
        assertThat(one.tokens()).containsExactly(49, 49, 35, 2);
        assertThat(one.logprobs()).containsExactly(-0.25f, -1.5f, -0.01f, -0.002f);
        assertThat(one.finish()).isEqualTo(FinishReason.EOS); // matched a stop token id, not a string
        List<Protocol.Choice> two = Protocol.SGLANG.parse(body("sglang-generate-n2.json"), 2, "x");
        assertThat(two.get(0).finish()).isEqualTo(FinishReason.STOP_STRING);
        assertThat(two.get(1).finish()).isEqualTo(FinishReason.LENGTH);
        assertThat(two.get(1).tokens()).containsExactly(49, 35);
    }

    @Test
    void aServerThatDoesNotReturnTokenIdsIsNamedNotGuessedAround() throws Exception {
        assertThatThrownBy(() -> Protocol.VLLM.parse(body("vllm-without-token-ids.json"), 1, "base"))
                .isInstanceOf(Protocol.ProtocolException.class)
                .hasMessageContaining("return_token_ids");
        assertThatThrownBy(() -> Protocol.VLLM.parse(body("vllm-completions.json"), 2, "x"))
                .hasMessageContaining("expected 2 choices, got 3");
        assertThatThrownBy(() ->
                        Protocol.SGLANG.parse(Protocol.JSON.readTree("{\"text\":\"x\",\"meta_info\":{}}"), 1, "x"))
                .hasMessageContaining("return_logprob");
    }

    @Test
    void servedNamesCarryTheVersion() {
        assertThat(OpenAiSampler.adapterName(new PolicyRef("m", "plan"), 12)).isEqualTo("plan-v12");
        assertThat(OpenAiSampler.versionOf("plan-v12")).isEqualTo(12);
        assertThat(OpenAiSampler.versionOf("my-v2-model")).isZero();
        assertThat(OpenAiSampler.versionOf("base")).isZero();
    }
}
