package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Http;
import org.pettingllms.text.ChatTemplate;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;

/**
 * A chat request's prompt: its {@link ChatMessages} through the model's chat template, with {@code tools} and
 * {@code chat_template_kwargs} as template variables, encoded, and each image's placeholder expanded to the tokens
 * the model's image input reads.
 *
 * @param ids the prompt's token ids, images expanded
 * @param images the images the ids show, in order
 * @param tools whether the template was told of tools, so answers are to be read for tool calls
 */
record ChatPrompt(int[] ids, List<Image> images, boolean tools) {
    /**
     * Renders {@code body}'s prompt for {@code policy}; {@code served} is the model as the request named it (or as
     * clients know the base model), never its local path.
     */
    static ChatPrompt of(Generation g, JsonNode body, PolicyRef policy, String served) {
        ChatTemplate template = g.codec
                .chatTemplate()
                .orElseThrow(() -> BadRequest.field(
                        "messages",
                        "the model has no chat template (chat_template in its tokenizer_config.json, or a"
                                + " chat_template.jinja file); send a text or token-id prompt to /v1/completions"));
        List<Image> images = new ArrayList<>();
        List<Map<String, Object>> messages = ChatMessages.of(body.get("messages"), images);
        // a text model is told before its template sees content parts it may not read
        InputEncoder encoder = images.isEmpty() ? null : encoderFor(g, policy, served, body.get("messages"));
        Map<String, Object> variables = new HashMap<>();
        JsonNode kwargs = body.get("chat_template_kwargs");
        if (kwargs != null && !kwargs.isNull()) {
            if (!kwargs.isObject()) {
                throw BadRequest.field("chat_template_kwargs", "expected an object");
            }
            variables.putAll(Http.JSON.convertValue(kwargs, ChatMessages.MAP));
            for (String own : List.of("messages", "tools", "add_generation_prompt")) {
                if (variables.containsKey(own)) {
                    throw BadRequest.field("chat_template_kwargs", "'" + own + "' is set by the request itself");
                }
            }
        }
        boolean tools = tools(body, template, variables);
        String text;
        try {
            text = template.renderMessages(messages, true, variables);
        } catch (IllegalArgumentException e) {
            throw BadRequest.field("messages", e.getMessage());
        }
        int[] ids = g.codec.encode(text);
        if (!images.isEmpty()) {
            try {
                ids = encoder.expand(ids, images, "messages");
            } catch (IllegalArgumentException e) { // an image that does not decode, or an aspect ratio over 200
                throw BadRequest.field(ChatMessages.firstImageField(body.get("messages")), e.getMessage());
            }
        }
        return new ChatPrompt(ids, images, tools);
    }

    /** The model's image input; a text model refuses the first image part by name. */
    private static InputEncoder encoderFor(Generation g, PolicyRef policy, String served, JsonNode msgs) {
        DecoderModel model = g.engine.registry().model(policy.model());
        InputEncoder encoder = model.inputEncoder();
        if (encoder == null) {
            throw BadRequest.field(
                    ChatMessages.firstImageField(msgs),
                    "model '" + served + "' (model_type " + model.config().modelType() + ") takes no images");
        }
        return encoder;
    }

    /** Puts {@code tools} into the template's variables; true when answers are to be read for tool calls. */
    private static boolean tools(JsonNode body, ChatTemplate template, Map<String, Object> variables) {
        JsonNode tools = body.get("tools");
        JsonNode choice = body.get("tool_choice");
        String mode = choice == null || choice.isNull() ? "auto" : choice.asText("");
        if (!mode.equals("auto") && !mode.equals("none")) {
            throw BadRequest.field("tool_choice", "only \"auto\" and \"none\" are supported, got " + choice);
        }
        if (tools != null && !tools.isNull() && !tools.isArray()) {
            throw BadRequest.field("tools", "expected a list of {type: function, function: {name, ...}}");
        }
        if (tools == null || tools.isNull() || tools.isEmpty() || mode.equals("none")) {
            return false;
        }
        for (int j = 0; j < tools.size(); j++) {
            if (!tools.get(j).path("function").path("name").isTextual()) {
                throw BadRequest.field("tools[" + j + "].function.name", "required");
            }
        }
        if (!template.readsTools()) {
            throw BadRequest.field("tools", "this model's chat template does not describe tools to the model");
        }
        List<Object> list = new ArrayList<>();
        tools.forEach(t -> list.add(Http.JSON.convertValue(t, ChatMessages.MAP)));
        variables.put("tools", list);
        return true;
    }
}
